// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift

/// A reading of a thermometer: the event most tests dispatch.
struct Reading: Eventable, Equatable {
    var celsius: Float
}

/// An event that no recorder records, to check what a recorder leaves alone.
struct Unrecorded: Eventable {}

/// A list that handlers on any thread append to and tests read afterwards.
final class Collected<Element: Sendable>: Sendable {
    private let storage = LockedValue<[Element]>([])

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    var values: [Element] { storage.withLock { $0 } }
}
