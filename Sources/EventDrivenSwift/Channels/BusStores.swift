/// What a bus keeps besides its registry: the current values of its states and its consumers.
final class _BusStores: Sendable {
    let states = _StateStore()
    let consumers = _ConsumerRegistry()
}
