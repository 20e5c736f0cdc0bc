// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.
//
// What one locked read-modify-write costs on this machine, in nanoseconds, on a word no other
// thread touches: the least that any multi-producer enqueue pays per event (a producer must
// claim its place with at least one), before any cache line moves between cores. With
// clockcost.c it bounds S1 from below (Benchmarks/RESULTS.md).
//
//   cc -O2 -o /tmp/lockcost Benchmarks/tools/lockcost.c && /tmp/lockcost
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(void) {
    enum { operations = 50000000 };
    static volatile uint64_t word = 0;

    double start = now();
    for (int i = 0; i < operations; i++) {
        uint64_t expected = word;
        __atomic_compare_exchange_n(&word, &expected, expected + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    }
    double exchange = (now() - start) / operations;

    start = now();
    for (int i = 0; i < operations; i++) __atomic_fetch_add(&word, 1, __ATOMIC_SEQ_CST);
    double add = (now() - start) / operations;

    start = now();
    for (int i = 0; i < operations; i++) word = word + 1;
    double plain = (now() - start) / operations;

    printf("compare-and-exchange (lock cmpxchg) %5.2f ns\n", exchange);
    printf("atomic add (lock xadd)              %5.2f ns\n", add);
    printf("plain load, add, store              %5.2f ns\n", plain);
    return (int)(word & 0);
}
