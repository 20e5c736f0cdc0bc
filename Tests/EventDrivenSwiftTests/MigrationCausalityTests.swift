// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing

/// The rows of the table in "Migrating from Causality" that no other suite covers as the row
/// says: each test is named after its row and checks what the row says we do.
///
/// `.serialized`: two of them use ``EventCentral/shared``, as Causality's `Causality.bus`.
@Suite("Migrating from Causality", .serialized)
struct MigrationCausalityTests {
    @Test("static let aTriggerEvent = EventChannel<NoMessage>(label:) is a channel without data, named by its label")
    func triggerChannel() {
        let bus = EventBus(label: "causality-trigger")
        let triggered = CoreRecorder<NoMessage>()
        bus.subscribe(MyEvents.aTriggerEvent, on: .synchronous) { message in triggered.append(message) }
        bus.publish(EventChannel<NoMessage>(label: "A Trigger"))
        bus.publish(EventChannel<NoMessage>(label: "Another Trigger"))
        #expect(triggered.values == [NoMessage()], "equal labels are one channel; other labels are others")
        #expect(MyEvents.aTriggerEvent == EventChannel<NoMessage>(label: "A Trigger"))
    }

    @Test("EventCentral.shared.subscribe(aTriggerEvent) { _ in … } subscribes on the shared bus")
    func subscribeOnShared() async {
        let triggered = CoreCounter()
        let subscription = EventCentral.shared.subscribe(MyEvents.aTriggerEvent) { _ in triggered.increment() }
        #expect(EventCentral.shared.subscriberCount(for: MyEvents.aTriggerEvent) == 1)
        EventBus(label: "causality-elsewhere").publish(MyEvents.aTriggerEvent)
        EventCentral.shared.publish(MyEvents.aTriggerEvent)
        await EventCentral.shared.drain()
        #expect(triggered.count == 1, "only the shared bus's trigger reaches it")
        subscription.cancel()
    }

    @Test("EventCentral.shared.publish(aTriggerEvent) signals the channel without a message")
    func publishOnShared() async {
        let triggered = CoreCounter()
        EventCentral.shared.publish(MyEvents.aTriggerEvent)  // nobody listens yet: it is not kept
        let subscription = EventCentral.shared.subscribe(MyEvents.aTriggerEvent) { _ in triggered.increment() }
        EventCentral.shared.publish(MyEvents.aTriggerEvent)
        EventCentral.shared.publish(MyEvents.aTriggerEvent)
        await EventCentral.shared.drain()
        #expect(triggered.count == 2, "one per publish after subscribing")
        subscription.cancel()
    }

    @Test("struct InterestingMessage: Sendable is all a message needs")
    func messageNeedsOnlySendable() {
        // Neither Eventable, Equatable nor Codable: a plain Sendable struct.
        struct PlainMessage: Sendable {
            let string: String
            let number: Int
        }
        let bus = EventBus(label: "causality-sendable")
        let channel = EventChannel<PlainMessage>(label: "An interesting Event 1")
        let received = CoreRecorder<PlainMessage>()
        bus.subscribe(channel, on: .synchronous) { message in received.append(message) }
        bus.publish(channel, PlainMessage(string: "Hello", number: 42))
        #expect(received.values.map(\.string) == ["Hello"])
        #expect(received.values.map(\.number) == [42])
    }

    @Test("static let myStringEvent = EventChannel<String>(label:) carries String messages, typed")
    func stringChannel() {
        let bus = EventBus(label: "causality-string")
        let strings = CoreRecorder<String>()
        let numbers = CoreRecorder<Int>()
        bus.subscribe(MyEvents.myStringEvent, on: .synchronous) { string in strings.append(string) }
        let sameLabel = EventChannel<Int>(label: "An event with a String message")
        bus.subscribe(sameLabel, on: .synchronous) { number in numbers.append(number) }
        bus.publish(MyEvents.myStringEvent, "Hello")
        #expect(strings.values == ["Hello"])
        #expect(numbers.values.isEmpty, "the message type is part of the channel")
    }

    @Test("let subscription = bus.subscribe(channel) { message in … } returns the subscription")
    func subscribeReturnsSubscription() async {
        let bus = EventBus(label: "causality-subscribe")
        let received = CoreRecorder<InterestingMessage>()
        let subscription = bus.subscribe(MyEvents.myInterestingEvent) { message in received.append(message) }
        #expect(subscription.isActive)
        #expect(bus.subscriberCount(for: MyEvents.myInterestingEvent) == 1)
        bus.publish(MyEvents.myInterestingEvent, InterestingMessage(string: "Hello", number: 42))
        await bus.drain()
        #expect(received.values == [InterestingMessage(string: "Hello", number: 42)])
        subscription.cancel()
    }

    @Test("bus.unsubscribe(subscription) or subscription.unsubscribe() ends a subscription, as cancel() does")
    func unsubscribe() async {
        let bus = EventBus(label: "causality-unsubscribe")
        let first = CoreRecorder<String>()
        let second = CoreRecorder<String>()
        let one = bus.subscribe(MyEvents.myStringEvent) { first.append($0) }
        let two = bus.subscribe(MyEvents.myStringEvent) { second.append($0) }
        bus.publish(MyEvents.myStringEvent, "before")
        await bus.drain()
        SeedSpellings.unsubscribe(one, on: bus)  // `bus.unsubscribe(one)`, deprecated
        SeedSpellings.unsubscribe(two)  // `two.unsubscribe()`, deprecated
        bus.publish(MyEvents.myStringEvent, "after")
        await bus.drain()
        #expect(first.values == ["before"] && second.values == ["before"])
        #expect(!one.isActive && !two.isActive)
        #expect(bus.subscriberCount(for: MyEvents.myStringEvent) == 0)
    }

    @Test("struct PlayerInfo: Equatable, Sendable is a state value; its == decides what is a change")
    func stateValueEquatableSendable() {
        let bus = EventBus(label: "causality-value")
        let state = EventState<PlayerInfo>(label: "Player 1 State")
        let seen = CoreRecorder<PlayerInfo>()
        bus.subscribe(state, on: .synchronous) { seen.append($0) }
        let info = PlayerInfo(numberOfLives: 3, health: 75, armor: 10)
        #expect(bus.set(state, to: info))
        #expect(!bus.set(state, to: PlayerInfo(numberOfLives: 3, health: 75, armor: 10)))
        #expect(seen.values == [info])
    }

    @Test("static let playerState1 = EventState<PlayerInfo>(label:) is a state named by its label")
    func stateDeclaration() {
        let bus = EventBus(label: "causality-state")
        let info = PlayerInfo(numberOfLives: 3, health: 75, armor: 10)
        bus.set(GameStates.playerState1, to: info)
        #expect(bus.value(of: EventState<PlayerInfo>(label: "Player 1 State")) == info)
        #expect(bus.value(of: GameStates.playerState2) == nil)
        #expect(GameStates.playerState1 != GameStates.playerState2)
        let channelMessages = CoreRecorder<PlayerInfo>()
        bus.subscribe(EventChannel<PlayerInfo>(label: "Player 1 State"), on: .synchronous) {
            channelMessages.append($0)
        }
        bus.set(GameStates.playerState1, to: PlayerInfo(numberOfLives: 2, health: 75, armor: 10))
        #expect(channelMessages.values.isEmpty, "a state is not a channel of the same label")
    }

    @Test("bus.set(state, to:) notifies subscribers of a change and reports whether it was one")
    func setState() async {
        let bus = EventBus(label: "causality-set")
        let seen = CoreRecorder<PlayerInfo>()
        let subscription = bus.subscribe(GameStates.playerState1) { seen.append($0) }
        let full = PlayerInfo(numberOfLives: 3, health: 75, armor: 100)
        let hurt = PlayerInfo(numberOfLives: 3, health: 50, armor: 100)
        #expect(bus.set(GameStates.playerState1, to: full))
        #expect(!bus.set(GameStates.playerState1, to: full), "equal: no one is notified")
        #expect(bus.set(GameStates.playerState1, to: hurt))
        await bus.drain()
        #expect(seen.values == [full, hurt])
        #expect(bus.value(of: GameStates.playerState1) == hurt)
        subscription.cancel()
    }

    @Test(
        "subscribe(…, on: .synchronous) runs the handler on the publishing thread before publish returns, as Causality's did"
    )
    func publishingThread() async {
        let bus = EventBus(label: "causality-thread")
        let channel = EventChannel<Int>(label: "scores")
        let synchronous = CoreRecorder<UInt>()
        let byDefault = CoreCounter()
        bus.subscribe(channel, on: .synchronous) { _ in synchronous.append(coreThreadID()) }
        bus.subscribe(channel) { _ in byDefault.increment() }  // the subscriber's own context
        let publisher = coreThreadID()
        bus.publish(channel, 1)
        #expect(synchronous.values == [publisher], "ran on this thread before publish returned")
        await bus.drain()
        #expect(byDefault.count == 1)
    }

    @Test("set(UserNameState, \"Mary Jane Doe\") and set(state:value:) are set(_:to:)")
    func setUnlabelledState() {
        let bus = EventBus(label: "causality-username")
        let userNameState = EventState<String>(label: "user name state")
        let names = CoreRecorder<String>()
        bus.subscribe(userNameState, on: .synchronous) { names.append($0) }
        bus.set(userNameState, to: "Mary Jane Doe")
        #expect(names.values == ["Mary Jane Doe"])
    }

    @Test("subscription.event.eventId is the key the subscription was made with, captured by its handler")
    func eventIdInHandler() {
        let bus = EventBus(label: "causality-eventid")
        let received = CoreRecorder<String>()
        for eventId in [1, 2] {
            bus.subscribe(MyEvents.event(eventId), on: .synchronous) { _, message in
                received.append("A message from event \(eventId): \(message.string)")
            }
        }
        bus.publish(MyEvents.event(2), InterestingMessage(string: "Hello", number: 42))
        #expect(received.values == ["A message from event 2: Hello"])
    }

    @Test("hasState is bus.value(of:) != nil: false until set, true after")
    func hasState() {
        let bus = EventBus(label: "causality-has")
        #expect(bus.value(of: GameStates.playerState1) == nil)
        bus.set(GameStates.playerState1, to: PlayerInfo(numberOfLives: 1, health: 1, armor: 1))
        #expect(bus.value(of: GameStates.playerState1) != nil)
        #expect(bus.value(of: GameStates.playerState2) == nil)
        #expect(bus.subscriberCount(for: GameStates.playerState1) == 0, "reading subscribes to nothing")
    }
}

extension MigrationCausalityTests {
    struct InterestingMessage: Sendable, Equatable {
        let string: String
        let number: Int
    }

    enum MyEvents {
        static let aTriggerEvent = EventChannel<NoMessage>(label: "A Trigger")
        static let myInterestingEvent = EventChannel<InterestingMessage>(label: "An interesting Event 1")
        static let myStringEvent = EventChannel<String>(label: "An event with a String message")
        static func event(_ eventId: Int) -> EventChannel<InterestingMessage> {
            EventChannel(label: "MyEvent", key: eventId)
        }
    }

    struct PlayerInfo: Equatable, Sendable {
        let numberOfLives: Int
        let health: Int
        let armor: Int
    }

    enum GameStates {
        static let playerState1 = EventState<PlayerInfo>(label: "Player 1 State")
        static let playerState2 = EventState<PlayerInfo>(label: "Player 2 State")
    }
}
