// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Synchronization

// Hooks for the EventDrivenSwiftTesting product, reached with `@_spi(Testing) import
// EventDrivenSwift`. They are not part of the library's API: the test kit wraps them in its own.

extension EventBus {
    /// Creates a bus on which every listener delivers synchronously, for tests.
    ///
    /// Every `executeOn` except ``DeliveryContext/mainActor`` resolves to
    /// ``DeliveryContext/synchronous`` when the listener registers, so a dispatch has run those
    /// handlers, in registration order, when it returns. Main-actor listeners keep the main actor:
    /// their callbacks may assume it.
    @_spi(Testing)
    public convenience init(synchronousForTestingLabel label: String) {
        self.init(label: label)
        synchronousForTesting.store(true, ordering: .releasing)
    }

    /// `true` for a bus made by ``init(synchronousForTestingLabel:)``.
    @_spi(Testing)
    public var isSynchronousForTesting: Bool {
        synchronousForTesting.load(ordering: .acquiring)
    }

    /// Dispatches `event` with the given metadata, so that a test clock can choose its times.
    @_spi(Testing)
    public func dispatch<E: Eventable>(_ event: E, testingMetadata metadata: EventMetadata) {
        dispatch(event, metadata: metadata)
    }

    /// The target a test bus gives a receiver that asked for `context`, or `nil` for the usual
    /// one: the main actor, a queue or a thread of the receiver's own stay as they are.
    func testingTarget(for context: DeliveryContext) -> (any _DeliveryTarget)? {
        guard isSynchronousForTesting else { return nil }
        switch context {
        case .mainActor, .queue, .thread: return nil
        case .requesterThread, .listenerThread, .taskThread, .synchronous: return synchronousTarget
        }
    }
}

extension EventMetadata {
    /// Metadata with times a test chooses.
    @_spi(Testing)
    public init(
        testingPriority priority: EventPriority, method: EventDispatchMethod, dispatchTime: DispatchTime,
        scheduledTime: DispatchTime?
    ) {
        self.init(priority: priority, method: method, dispatchTime: dispatchTime, scheduledTime: scheduledTime)
    }
}
