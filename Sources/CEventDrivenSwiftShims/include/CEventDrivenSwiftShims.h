// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#ifndef C_EVENT_DRIVEN_SWIFT_SHIMS_H
#define C_EVENT_DRIVEN_SWIFT_SHIMS_H

#include <stdint.h>

// What the core needs from C: thread-local words that Swift cannot declare, and the system calls
// of a priority-inheriting lock on Linux.

#if defined(__linux__)
#define C_EDS_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define C_EDS_TLS_MODEL
#endif

/// How deeply synchronous deliveries nest on the current thread (`EventBus.maximumSynchronousDepth`).
extern _Thread_local intptr_t c_eds_synchronous_depth C_EDS_TLS_MODEL;

/// The current thread's synchronous depth counter; reaching it is a few instructions, without a call.
static inline intptr_t *c_eds_synchronous_depth_pointer(void) { return &c_eds_synchronous_depth; }

/// The mailbox whose drain runs on the current thread (unretained), or null (`_ReceiverContext`).
extern _Thread_local void *c_eds_receiver_mailbox C_EDS_TLS_MODEL;

/// The current thread's receiver slot; setting it allocates nothing, unlike a task-local binding.
static inline void **c_eds_receiver_mailbox_pointer(void) { return &c_eds_receiver_mailbox; }

#if defined(__linux__)
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

// Declared here: glibc declares them only under _GNU_SOURCE, which Swift's Glibc module does not set.
int pthread_setname_np(pthread_t thread, const char *name);

/// Names the current thread in the system (at most 15 bytes on Linux): 0, or an error number.
static inline int c_eds_set_thread_name(const char *name) { return pthread_setname_np(pthread_self(), name); }

/// The kernel's id of the current thread once asked for, else 0 (see `c_eds_current_thread_id`).
extern _Thread_local uint32_t c_eds_thread_id C_EDS_TLS_MODEL;

/// Installs, once per process, the fork handler that clears `c_eds_thread_id` in a child.
extern pthread_once_t c_eds_fork_handler_once;

// A forked child's one thread has a new id; the parent's must not be taken for it.
static inline void c_eds_forget_thread_id(void) { c_eds_thread_id = 0; }

static inline void c_eds_install_fork_handler(void) { pthread_atfork(NULL, NULL, c_eds_forget_thread_id); }

/// Asks the kernel for the current thread's id and keeps it.
static inline uint32_t c_eds_thread_id_slow(void) {
    pthread_once(&c_eds_fork_handler_once, c_eds_install_fork_handler);
    uint32_t id = (uint32_t)syscall(SYS_gettid);
    c_eds_thread_id = id;
    return id;
}

/// The kernel's id of the current thread: what a priority-inheriting futex holds while it is
/// owned. A thread-local read after the first call.
static inline uint32_t c_eds_current_thread_id(void) {
    uint32_t id = c_eds_thread_id;
    return __builtin_expect(id != 0, 1) ? id : c_eds_thread_id_slow();
}

/// Tells the processor that the caller is waiting in a short loop (x86 `pause`, ARM `yield`).
static inline void c_eds_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield");
#endif
}

/// Waits until the priority-inheriting futex at `word` is owned by the current thread
/// (`FUTEX_LOCK_PI`): the kernel queues the caller and lends its priority to the owner.
/// Returns 0, or `EDEADLK` if the current thread owns it already.
static inline int c_eds_futex_lock_pi(uint32_t *word) {
    for (;;) {
        if (syscall(SYS_futex, word, FUTEX_LOCK_PI_PRIVATE, 0, NULL, NULL, 0) == 0) return 0;
        if (errno == EINTR || errno == EAGAIN) continue;  // interrupted, or the owner is exiting
        if (errno == EDEADLK) return EDEADLK;
        // No priority-inheriting futexes here (ENOSYS under some emulators and sandboxes): take
        // the word as a plain lock, yielding while another thread holds it. Its owner then never
        // finds waiters recorded, so it releases it without a system call.
        for (;;) {
            uint32_t expected = 0;
            if (__atomic_compare_exchange_n(word, &expected, c_eds_current_thread_id(), 0, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED))
                return 0;
            if ((expected & FUTEX_TID_MASK) == c_eds_current_thread_id()) return EDEADLK;
            sched_yield();
        }
    }
}

/// Hands the priority-inheriting futex at `word`, which has waiters, to the first of them
/// (`FUTEX_UNLOCK_PI`).
static inline void c_eds_futex_unlock_pi(uint32_t *word) {
    while (syscall(SYS_futex, word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL, NULL, 0) != 0 && errno == EINTR) {
    }
}
#endif

#endif
