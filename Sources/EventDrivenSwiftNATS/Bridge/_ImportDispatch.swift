// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Logging

/// Marks a dispatch of an imported event, so that the exporter does not send it back.
enum _ImportMarker {
    @TaskLocal static var isImporting = false
}

/// Where ``NATSBridge/importEvents(_:mode:)`` dispatches its batches: a serial dispatch queue of
/// the import's own, not the importer's task.
///
/// A dispatch may wait: a receiver whose bounded mailbox is `.blockProducer` holds its producer
/// until it has room (with no timeout, for as long as its handler takes). Made from the
/// importer's task, that wait held one of the few threads of Swift's cooperative pool, which every
/// task of the process shares. A serial queue made with `DispatchQueue(label:)` runs on
/// libdispatch's overcommitting threads, which grow when one blocks; one hop per batch, not per
/// event.
struct _ImportDispatch: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Dispatches each of `batch`'s events, as an `E`, on `bus`, marked as imported, and returns
    /// the indices of those the bus refused because it is shut down
    /// (``NATSBridge/busRefuses(_:on:counters:logger:)``).
    func dispatch<E: Eventable>(
        _ batch: _BatchSettlement, as _: E.Type, on bus: EventBus, counters: _BridgeCounters, logger: Logger
    ) async -> [Int] {
        await withCheckedContinuation { continuation in
            queue.async {
                var refused: [Int] = []
                _ImportMarker.$isImporting.withValue(true) {
                    for index in batch.items.indices
                    where NATSBridge.busRefuses(
                        batch.items[index].event as! E, on: bus, counters: counters, logger: logger)
                    {
                        refused.append(index)
                    }
                }
                continuation.resume(returning: refused)
            }
        }
    }
}
