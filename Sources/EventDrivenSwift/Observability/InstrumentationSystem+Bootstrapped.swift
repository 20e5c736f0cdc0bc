// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Instrumentation

extension InstrumentationSystem {
    /// Whether an instrument (a tracer among them) has been bootstrapped: the default of
    /// ``EventBus/propagatesServiceContext`` for a bus created now.
    static var isBootstrapped: Bool { !(instrument is NoOpInstrument) }
}
