// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

#include "CEventDrivenSwiftShims.h"

// `nodebug`: Valgrind 3.19 cannot read the DWARF location of a thread-local variable and gives
// up on the whole binary, which would keep callgrind from measuring the dispatch path.
__attribute__((nodebug)) _Thread_local intptr_t c_eds_synchronous_depth C_EDS_TLS_MODEL = 0;
