// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Testing

/// Two suites skip themselves when a tool is missing: the cluster tests without `nats-server`,
/// the interoperability test without a Python that has nats-py. CI (`.ci/run`) sets
/// `EDS_REQUIRE_TEST_TOOLS=1`, so that a skip there is a failure instead of a silent pass.
@Suite("The tools the NATS tests need, where CI requires them")
struct TestToolsTests {
    @Test(
        "with EDS_REQUIRE_TEST_TOOLS=1, nats-server and a Python with nats-py are found",
        .enabled(if: ProcessInfo.processInfo.environment["EDS_REQUIRE_TEST_TOOLS"] == "1"))
    func toolsArePresent() {
        #expect(natsServerInstalled, "nats-server is missing: the cluster tests were skipped")
        #expect(interopPython != nil, "no Python with nats-py: the interoperability test was skipped")
    }
}
