// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// The program that `.ci/dispatch-path` runs under callgrind, in a debug build, to count the
// library files and functions that one event executes (see the Delivery and Ordering article).
//
//   DispatchPathProbe listenerThread 20000   # `event.queue(on:)` to one .listenerThread listener
//   DispatchPathProbe synchronous 20000      # `event.dispatchNow(on:)` to one .synchronous listener
import Dispatch
import EventDrivenSwift

struct Tick: Eventable {
    let value: Int
}

let arguments = CommandLine.arguments
let mode = arguments.count > 1 ? arguments[1] : "listenerThread"
let count = arguments.count > 2 ? Int(arguments[2]) ?? 20_000 : 20_000

let bus = EventBus(label: "probe")
let received = ReceivedCount()
let done = DispatchSemaphore(value: 0)

switch mode {
case "synchronous":
    let handle = bus.listen(Tick.self, executeOn: .synchronous) { _, _ in received.add() }
    for value in 0..<count { Tick(value: value).dispatchNow(on: bus) }
    handle.cancel()
default:
    let handle = bus.listen(Tick.self, executeOn: .listenerThread) { tick, _ in
        received.add()
        if tick.value == count - 1 { done.signal() }
    }
    for value in 0..<count { Tick(value: value).queue(on: bus) }
    done.wait()
    handle.cancel()
}
precondition(received.value == count, "received \(received.value) of \(count)")
print("\(mode): \(received.value) events")
