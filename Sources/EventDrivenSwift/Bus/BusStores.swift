// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What a bus keeps besides its registry: the current values of its states and its consumers.
final class _BusStores: Sendable {
    let states = _StateStore()
    let consumers = _ConsumerRegistry()
    /// The did-consume notices, installed while wanted (Consumers/ConsumptionNotices.swift).
    let consumptionNotices = _ConsumptionNoticesSwitch()
}
