// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// The last `capacity` records of an ``EventFlowRecorder``: a ring that overwrites the oldest.
struct _FlowRing {
    private var storage: [EventFlowRecord] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity > 0, "An EventFlowRecorder keeps at least one record")
        self.capacity = capacity
    }

    mutating func append(_ record: EventFlowRecord) {
        if storage.count < capacity {
            storage.append(record)
        } else {
            storage[next] = record
            next = (next + 1) % capacity
        }
    }

    /// The records, oldest first.
    var records: [EventFlowRecord] {
        Array(storage[next...] + storage[..<next])
    }

    mutating func removeAll() {
        storage.removeAll()
        next = 0
    }
}
