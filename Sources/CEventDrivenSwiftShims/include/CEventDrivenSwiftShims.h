#ifndef C_EVENT_DRIVEN_SWIFT_SHIMS_H
#define C_EVENT_DRIVEN_SWIFT_SHIMS_H

#include <stdint.h>

// What the core needs from C: a thread-local word that Swift cannot declare.

#if defined(__linux__)
#define C_EDS_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define C_EDS_TLS_MODEL
#endif

/// How deeply synchronous deliveries nest on the current thread (`EventBus.maximumSynchronousDepth`).
extern _Thread_local intptr_t c_eds_synchronous_depth C_EDS_TLS_MODEL;

/// The current thread's synchronous depth counter; reaching it is a few instructions, without a call.
static inline intptr_t *c_eds_synchronous_depth_pointer(void) { return &c_eds_synchronous_depth; }

#endif
