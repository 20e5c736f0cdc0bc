// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.
//
// What one read of each clock costs on this machine, in nanoseconds: the clock every dispatch
// stamps its event with (CLOCK_MONOTONIC, as DispatchTime on Linux), a coarse clock, and on x86
// the time-stamp counter alone. Then one sched_yield with nothing else to run: the pause between
// two looks of a lingering drainer (`_DrainPacing`).
//
//   cc -O2 -o /tmp/clockcost Benchmarks/tools/clockcost.c && /tmp/clockcost
#include <sched.h>
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static double per_read(clockid_t clock, int reads, unsigned long long *sink) {
    struct timespec t;
    double start = now();
    for (int i = 0; i < reads; i++) {
        clock_gettime(clock, &t);
        *sink += (unsigned long long)t.tv_nsec;
    }
    return (now() - start) / reads;
}

int main(void) {
    enum { reads = 10000000 };
    unsigned long long sink = 0;
    printf("CLOCK_MONOTONIC        %5.1f ns per read\n", per_read(CLOCK_MONOTONIC, reads, &sink));
    struct timespec resolution;
    clock_getres(CLOCK_MONOTONIC_COARSE, &resolution);
    printf("CLOCK_MONOTONIC_COARSE %5.1f ns per read (resolution %ld ns)\n",
           per_read(CLOCK_MONOTONIC_COARSE, reads, &sink), resolution.tv_nsec);
#if defined(__x86_64__)
    double start = now();
    for (int i = 0; i < reads; i++) sink += __rdtsc();
    printf("rdtsc                  %5.1f ns per read\n", (now() - start) / reads);
#endif
    enum { yields = 1000000 };
    double yieldStart = now();
    for (int i = 0; i < yields; i++) sched_yield();
    printf("sched_yield            %5.1f ns per call\n", (now() - yieldStart) / yields);
    return sink == 42;
}
