// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import EventDrivenSwift
import Testing
import ThreadSafeSwift

@Suite("@ThreadSafeSemaphore (T7)")
struct ThreadSafeSemaphoreTests {
    @Test("T7: a multi-word value is never read torn while other threads write it")
    func noTornReads() async {
        let model = Model()
        let torn = CoreCounter()
        let iterations = coreUnderThreadSanitizer ? 2_000 : 20_000
        await coreOnThreads(4) { worker in
            for step in 0..<iterations {
                if worker < 2 {
                    let value = UInt64(worker * iterations + step)
                    model.quad = Quad(a: value, b: value, c: value, d: value)
                    model.name = "writer \(worker) step \(step) with a string too long to be stored inline"
                } else {
                    let quad = model.quad
                    if !(quad.a == quad.b && quad.b == quad.c && quad.c == quad.d) { torn.increment() }
                    _ = model.name.count
                }
            }
        }
        #expect(torn.count == 0)
    }

    @Test("T7: _x.withLock { $0 += 1 } is an atomic read-modify-write")
    func withLockIsAtomic() async {
        let model = Model()
        let iterations = coreUnderThreadSanitizer ? 2_000 : 25_000
        await coreOnThreads(4) { _ in
            for _ in 0..<iterations { model.incrementCounter() }
        }
        #expect(model.counter == 4 * iterations)
        #expect(model.incrementAndRead() == 4 * iterations + 1, "withLock returns the body's result")
    }

    @Test("T7: copies of the wrapper share one storage")
    func copiesShareStorage() {
        let model = Model()
        let copy = model.counterWrapper
        copy.withLock { $0 = 41 }
        model.counter += 1
        #expect(copy.wrappedValue == 42)
    }
}

extension ThreadSafeSemaphoreTests {
    struct Quad: Sendable {
        var a: UInt64
        var b: UInt64
        var c: UInt64
        var d: UInt64
    }

    final class Model: @unchecked Sendable {  // every stored property is a @ThreadSafeSemaphore
        @ThreadSafeSemaphore var quad = Quad(a: 0, b: 0, c: 0, d: 0)
        @ThreadSafeSemaphore var name = ""
        @ThreadSafeSemaphore var counter = 0

        func incrementCounter() { _counter.withLock { $0 += 1 } }

        func incrementAndRead() -> Int {
            $counter.withLock { value in
                value += 1
                return value
            }
        }

        var counterWrapper: ThreadSafeSemaphore<Int> { _counter }
    }
}
