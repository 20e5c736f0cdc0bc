// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import CTestProcessSettings
import Testing

@Suite("The test process")
struct TestProcessSettingsTests {
    /// The width is set when the test executable loads (`Tests/CTestProcessSettings`), unless the
    /// environment chose one: either way Swift Testing reads a number, never "every test at once".
    @Test("Swift Testing runs a bounded number of tests at once")
    func parallelizationWidthIsBounded() {
        let width = Int(c_test_process_parallelization_width())
        #expect(width > 0, "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH is not set")
    }
}
