// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import EventDrivenSwift
import Foundation
import Testing

/// Issue 26 item 2: an unapplied method isolated to an actor, registered with another
/// `executeOn`, compiled and ran off its actor (Swift converts such a method to a plain
/// `@Sendable` function without a diagnostic). It now runs on its actor.
@Suite("A4: a listener's method runs on its own actor, whatever executeOn says")
struct IsolatedMethodTests {
    struct Tick: Eventable { let value: Int }

    @MainActor
    final class ViewModel {
        var ticks: [Int] = []
        var offMain = 0
        func onTick(_ tick: Tick, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            if DispatchQueue.getSpecific(key: ReadmeContractTests.mainQueueKey) != true { offMain += 1 }
            ticks.append(tick.value)
        }
    }

    @globalActor actor Engine { static let shared = Engine() }

    @Engine
    final class EngineModel {
        var ticks: [Int] = []
        func onTick(_ tick: Tick, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            Engine.shared.preconditionIsolated()
            ticks.append(tick.value)
        }
    }

    final class Plain: Sendable {
        let ticks = CoreRecorder<Int>()
        func onTick(_ tick: Tick, _ priority: EventPriority, _ dispatchTime: DispatchTime) {
            ticks.append(tick.value)
        }
    }

    @Test("a @MainActor method registered with .listenerThread runs on the main actor, in order")
    @MainActor
    func mainActorMethod() async {
        _ = ReadmeContractTests.mainQueueKey  // marks the main queue
        let bus = EventBus(label: "A4-main-method")
        let model = ViewModel()
        let handle = Tick.addListener(model, ViewModel.onTick, executeOn: .listenerThread, on: bus)
        let other = bus.addListener(Tick.self, ViewModel.onTick, owner: model, executeOn: .synchronous)
        await Task.detached {
            for value in 0..<100 { Tick(value: value).queue(on: bus) }
        }.value
        await bus.drain()
        #expect(model.offMain == 0)
        #expect(model.ticks == (0..<100).flatMap { [$0, $0] })
        handle.cancel()
        other.cancel()
    }

    @Test("a method of a class isolated to another global actor runs on that actor")
    func globalActorMethod() async {
        let bus = EventBus(label: "A4-engine-method")
        let model = EngineModel()
        let handle = Tick.addListener(model, EngineModel.onTick, executeOn: .taskThread, on: bus)
        for value in 0..<50 { Tick(value: value).queue(on: bus) }
        await bus.drain()
        #expect(await model.ticks == Array(0..<50))
        handle.cancel()
    }

    @Test("a nonisolated method keeps its executeOn: .synchronous runs it before dispatch returns")
    func nonisolatedMethod() async {
        let bus = EventBus(label: "A4-plain-method")
        let plain = Plain()
        let handle = Tick.addListener(plain, Plain.onTick, executeOn: .synchronous, on: bus)
        Tick(value: 1).dispatchNow(on: bus)
        #expect(plain.ticks.values == [1])
        let queued = bus.addListener(Tick.self, Plain.onTick, owner: plain, executeOn: .listenerThread)
        Tick(value: 2).queue(on: bus)
        await bus.drain()
        #expect(plain.ticks.values.sorted() == [1, 2, 2])
        handle.cancel()
        queued.cancel()
    }

    @Test("the owner is held weakly: once freed, its method is not called and the listener goes")
    @MainActor
    func weakOwner() async {
        let bus = EventBus(label: "A4-weak-method")
        var model: ViewModel? = ViewModel()
        weak let freed = model
        let handle = Tick.addListener(model!, ViewModel.onTick, executeOn: .listenerThread, on: bus)
        model = nil
        #expect(freed == nil)
        Tick(value: 1).queue(on: bus)
        await bus.drain()
        #expect(!handle.isActive)
    }
}
