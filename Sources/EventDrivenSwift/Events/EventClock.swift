import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension DispatchTime {
    /// The current time, for stamping events: the same clock as `DispatchTime.now()`.
    ///
    /// On Linux `DispatchTime` counts `CLOCK_MONOTONIC` nanoseconds, so the clock is read directly,
    /// without libdispatch's general-purpose time function: every dispatch reads it once.
    @inlinable
    static var _eventNow: DispatchTime {
        #if canImport(Glibc) || canImport(Musl)
            var time = timespec()
            clock_gettime(CLOCK_MONOTONIC, &time)
            return DispatchTime(uptimeNanoseconds: UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec))
        #else
            return .now()
        #endif
    }
}
