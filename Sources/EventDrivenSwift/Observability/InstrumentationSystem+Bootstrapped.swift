import Instrumentation

extension InstrumentationSystem {
    /// Whether an instrument (a tracer among them) has been bootstrapped: the default of
    /// ``EventBus/propagatesServiceContext`` for a bus created now.
    static var isBootstrapped: Bool { !(instrument is NoOpInstrument) }
}
