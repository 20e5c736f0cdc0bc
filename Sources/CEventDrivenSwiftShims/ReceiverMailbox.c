// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#include "CEventDrivenSwiftShims.h"

// `nodebug`, like the synchronous depth (see SynchronousDepth.c): Valgrind 3.19 cannot read the
// DWARF location of a thread-local variable.
__attribute__((nodebug)) _Thread_local void *c_eds_receiver_mailbox C_EDS_TLS_MODEL = 0;
