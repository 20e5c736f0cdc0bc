// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#ifndef C_TEST_PROCESS_SETTINGS_H
#define C_TEST_PROCESS_SETTINGS_H

/// How many tests Swift Testing runs at once in this test process: the value of
/// `SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH` as the process started (from the environment,
/// or set when the test executable loaded, before Swift Testing reads it), 0 when it is not a number.
int c_test_process_parallelization_width(void);

#endif
