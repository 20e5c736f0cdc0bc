// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#include "CEventDrivenSwiftShims.h"

#if defined(__linux__)
// Only variables here, each `nodebug`, and the functions inline in the header: Valgrind 3.19
// cannot read the DWARF 5 that clang writes for this target's functions and gives up on the
// whole binary (see SynchronousDepth.c).
__attribute__((nodebug)) _Thread_local uint32_t c_eds_thread_id C_EDS_TLS_MODEL = 0;
__attribute__((nodebug)) pthread_once_t c_eds_fork_handler_once = PTHREAD_ONCE_INIT;
#endif
