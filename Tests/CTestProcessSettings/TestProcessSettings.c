// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#include "CTestProcessSettings.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define WIDTH_VARIABLE "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"

/// Runs when the test executable loads, before its `main` and so before Swift Testing reads its
/// settings: unless the environment says otherwise, Swift Testing runs at most six tests per
/// processor at once instead of every test at once.
///
/// With all of them at once, each test's turns on Swift's pool (two threads on two cores) come
/// after every other test's, so a test that needs a few dozen hops took as long as the whole run:
/// under ThreadSanitizer on a loaded two-core machine, over 120 s, and tests whose guard against
/// hanging was 30 s failed (`.ci/run`, 2026-11-27). Set the variable to choose another width.
__attribute__((constructor)) static void limit_parallel_tests(void) {
    long processors = sysconf(_SC_NPROCESSORS_ONLN);
    if (processors < 1) processors = 1;
    char width[32];
    snprintf(width, sizeof width, "%ld", processors * 6);
    setenv(WIDTH_VARIABLE, width, 0);  // 0: a value already in the environment is kept
}

int c_test_process_parallelization_width(void) {
    const char *value = getenv(WIDTH_VARIABLE);
    return value ? atoi(value) : 0;
}
