// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation

/// A certificate authority, a server certificate it signed (for `localhost`, 127.0.0.1 and ::1)
/// and a client certificate it signed, made with `openssl` in a temporary directory.
struct TestCertificates {
    let directory: URL
    var caCertificate: String { path("ca.pem") }
    var serverCertificate: String { path("server.pem") }
    var serverKey: String { path("server.key") }
    var clientCertificate: String { path("client.pem") }
    var clientKey: String { path("client.key") }

    static let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func make() async throws -> TestCertificates {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("eds-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = TestCertificates(directory: directory)
        try Data("subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nextendedKeyUsage=serverAuth\n".utf8)
            .write(to: directory.appendingPathComponent("server.ext"))
        try Data("extendedKeyUsage=clientAuth\n".utf8).write(to: directory.appendingPathComponent("client.ext"))
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + key + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=eds-test-ca"],
            ["req"] + key + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"],
            [
                "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "server.pem", "-days", "1", "-extfile", "server.ext",
            ],
            ["req"] + key + ["-keyout", "client.key", "-out", "client.csr", "-subj", "/CN=eds-test-client"],
            [
                "x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
                "client.pem", "-days", "1", "-extfile", "client.ext",
            ],
        ]
        for step in steps {
            let child = try ChildProcess(
                URL(fileURLWithPath: openssl!),
                step.map {
                    $0.hasSuffix(".pem") || $0.hasSuffix(".key") || $0.hasSuffix(".csr") || $0.hasSuffix(".ext")
                        ? certificates.path($0) : $0
                })
            guard await child.waitForExit(timeout: .seconds(30)) == 0 else {
                throw CertificateError.openssl(step.joined(separator: " "), child.stderr.joined(separator: "\n"))
            }
        }
        return certificates
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    enum CertificateError: Error {
        case openssl(String, String)
    }
}
