-- wrk script: every request is a POST of one order (JSON), to the path on wrk's command line.
wrk.method = "POST"
wrk.body = '{"amountCents":1250}'
wrk.headers["Content-Type"] = "application/json"
