// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import ServiceContextModule

/// The `ServiceContext` current where an event was scheduled, made current again around its
/// dispatch when it falls due: a scheduled event carries its context as one dispatched at once
/// does, through the same dispatch path (interceptors, tracing and the flow recorder included).
///
/// Public only to the test kit (`@_spi(Testing)`), whose manual clock schedules the same way.
@_spi(Testing)
public struct _CapturedServiceContext: Sendable {
    private let context: ServiceContext?

    /// Captures the context current here.
    public init() {
        context = ServiceContext.current
    }

    /// Runs `body` with the captured context current, or as things are if there was none.
    public func withContext<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let context else { return try body() }
        return try ServiceContext.withValue(context) { try body() }
    }
}
