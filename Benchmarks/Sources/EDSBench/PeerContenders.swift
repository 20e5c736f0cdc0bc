// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Dispatch
import Foundation
import OpenCombine
import OpenCombineDispatch

/// Foundation's NotificationCenter: synchronous, the event carried in `userInfo`.
struct NotificationCenterContender: Contender {
    var name: String { "NotificationCenter" }
    var kind: ContenderKind { .peer }
    var isSynchronous: Bool { true }
    var routesByType: Bool { true }

    func makePipeline(receivers: Int, otherTypes: Int, handler: @escaping @Sendable (Int, Tick) -> Void) -> Pipeline {
        let center = NotificationCenter()
        let name = Notification.Name("bench.tick")
        var observers: [NSObjectProtocol] = []
        for other in 0..<otherTypes {
            observers.append(
                center.addObserver(forName: Notification.Name("bench.other.\(other)"), object: nil, queue: nil) { _ in }
            )
        }
        for index in 0..<receivers {
            observers.append(
                center.addObserver(forName: name, object: nil, queue: nil) { note in
                    handler(index, note.userInfo!["tick"] as! Tick)
                })
        }
        return Pipeline(
            send: { center.post(name: name, object: nil, userInfo: ["tick": $0]) },
            tearDown: { for observer in observers { center.removeObserver(observer) } })
    }
}

/// OpenCombine's `PassthroughSubject`, delivering synchronously or through `receive(on:)` a
/// serial DispatchQueue per receiver.
struct CombineContender: Contender {
    let receiveOnQueue: Bool
    var name: String { receiveOnQueue ? "OpenCombine receive(on:)" : "OpenCombine sync" }
    var kind: ContenderKind { .peer }
    var isSynchronous: Bool { !receiveOnQueue }
    var routesByType: Bool { false }

    func makePipeline(receivers: Int, otherTypes: Int, handler: @escaping @Sendable (Int, Tick) -> Void) -> Pipeline {
        let subject = PassthroughSubject<Tick, Never>()
        var cancellables: [AnyCancellable] = []
        for index in 0..<receivers {
            if receiveOnQueue {
                let queue = DispatchQueue(label: "bench.combine.\(index)")
                cancellables.append(subject.receive(on: queue.ocombine).sink { handler(index, $0) })
            } else {
                cancellables.append(subject.sink { handler(index, $0) })
            }
        }
        return Pipeline(
            send: { subject.send($0) },
            tearDown: { for cancellable in cancellables { cancellable.cancel() } })
    }
}

/// An unbounded `AsyncStream` per receiver, consumed by a detached task.
struct AsyncStreamContender: Contender {
    var name: String { "AsyncStream" }
    var kind: ContenderKind { .peer }
    var isSynchronous: Bool { false }
    var routesByType: Bool { false }

    func makePipeline(receivers: Int, otherTypes: Int, handler: @escaping @Sendable (Int, Tick) -> Void) -> Pipeline {
        let finished = DispatchSemaphore(value: 0)
        var continuations: [AsyncStream<Tick>.Continuation] = []
        for index in 0..<receivers {
            let (stream, continuation) = AsyncStream<Tick>.makeStream(bufferingPolicy: .unbounded)
            continuations.append(continuation)
            Task.detached {
                for await tick in stream { handler(index, tick) }
                finished.signal()
            }
        }
        return Pipeline(
            send: { tick in for continuation in continuations { continuation.yield(tick) } },
            tearDown: {
                for continuation in continuations { continuation.finish() }
                for _ in 0..<receivers { finished.wait() }
            })
    }
}
