// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// A malloc counter to preload: counts every heap allocation call of the process.
// Build: gcc -O2 -shared -fPIC -o malloccount.so malloccount.c
// The benchmark reads the count through `bench_malloc_count` (found with dlsym).
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

static uint64_t count;

uint64_t bench_malloc_count(void) { return __atomic_load_n(&count, __ATOMIC_RELAXED); }

static inline void bump(void) { __atomic_fetch_add(&count, 1, __ATOMIC_RELAXED); }

void *malloc(size_t size) { bump(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { bump(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { bump(); return __libc_realloc(p, size); }
void *memalign(size_t alignment, size_t size) { bump(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { bump(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    bump();
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
