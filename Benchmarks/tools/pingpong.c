// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.
//
// What S3 (dispatch -> callback latency) costs on this machine with no library at all: two
// threads, one word. The sender stamps CLOCK_MONOTONIC into the word and waits on a semaphore;
// the receiver looks at the word until it is non-zero, reads the clock, records the difference
// and posts the semaphore, like S3's handler. Between looks the receiver either calls
// sched_yield (as a lingering drainer does, `_DrainPacing`) or spins. 12,000 pings, the first
// 2,000 not counted; prints p50 and p99 in nanoseconds.
//
// With a second argument N, the sender also writes a chain of N cache lines before the word,
// each naming the next, and the receiver follows the chain before it reads the clock: N more
// lines that the other core wrote last, read one after another, as a delivery's path reads its
// node and its item. The stamp is taken before the sender writes the chain, as a dispatch stamps
// its event before it writes the node, so the sender's writes are in the figure too. The
// difference between N and 0 is what such lines cost.
//
//   cc -O2 -o /tmp/pingpong Benchmarks/tools/pingpong.c -lpthread && /tmp/pingpong yield && /tmp/pingpong spin
//   /tmp/pingpong yield 6
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { pings = 12000, warmUp = 2000 };

static _Atomic uint64_t word;
static sem_t reply;
static int yields;
static uint64_t latency[pings];
enum { maxLines = 64 };
static int lines;
// One chain link per cache line; `next` is written by the sender on every ping.
static struct {
    _Alignas(64) volatile int next;
} chain[maxLines + 1];

static uint64_t now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static void *receiver(void *unused) {
    (void)unused;
    for (int i = 0; i < pings; i++) {
        uint64_t stamp;
        while ((stamp = atomic_exchange(&word, 0)) == 0) {
            if (yields) sched_yield();
        }
        int at = 0;
        for (int step = 0; step < lines; step++) at = chain[at].next;
        if (at != lines) abort();
        latency[i] = now() - stamp;
        sem_post(&reply);
    }
    return NULL;
}

static int ascending(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3 || (strcmp(argv[1], "yield") != 0 && strcmp(argv[1], "spin") != 0)) {
        fprintf(stderr, "usage: pingpong yield|spin [lines]\n");
        return 2;
    }
    lines = argc == 3 ? atoi(argv[2]) : 0;
    if (lines < 0 || lines > maxLines) {
        fprintf(stderr, "lines: 0 to %d\n", maxLines);
        return 2;
    }
    yields = strcmp(argv[1], "yield") == 0;
    sem_init(&reply, 0, 0);
    pthread_t thread;
    pthread_create(&thread, NULL, receiver, NULL);
    for (int i = 0; i < pings; i++) {
        uint64_t stamp = now();
        for (int step = 0; step < lines; step++) chain[step].next = step + 1;
        atomic_store(&word, stamp);
        sem_wait(&reply);
    }
    pthread_join(thread, NULL);
    qsort(latency + warmUp, pings - warmUp, sizeof latency[0], ascending);
    int counted = pings - warmUp;
    printf("%s, %d lines: p50 %llu ns, p99 %llu ns\n", argv[1], lines, (unsigned long long)latency[warmUp + counted / 2],
           (unsigned long long)latency[warmUp + counted * 99 / 100]);
    return 0;
}
