// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Testing

@testable import EventDrivenSwift

/// The bus's route table: an open-addressing table checked against a dictionary.
@Suite("Route table")
struct RouteTableTests {
    /// Objects whose identities serve as keys; kept alive so that no address is reused.
    private final class Key {}

    @Test("every insert, replace and remove matches a dictionary, through growth and removal shifts")
    func matchesDictionary() {
        let keys = (0..<300).map { _ in Key() }
        let table = _RouteTable<_Route>()
        var model: [ObjectIdentifier: _Route] = [:]
        var generator = SystemRandomNumberGenerator()
        for step in 0..<5_000 {
            let key = ObjectIdentifier(keys[Int.random(in: 0..<keys.count, using: &generator)])
            if Bool.random(using: &generator) || step < 200 {
                let route = _Route(subscriptions: [], latest: nil)
                table[key] = route
                model[key] = route
            } else {
                table[key] = nil
                model[key] = nil
            }
        }
        #expect(table.count == model.count)
        for key in keys.map(ObjectIdentifier.init) {
            #expect(table[key] === model[key])
            #expect(table.withRoute(key) { ObjectIdentifier($0) } == model[key].map(ObjectIdentifier.init))
        }
        #expect(Set(table.values.map(ObjectIdentifier.init)) == Set(model.values.map(ObjectIdentifier.init)))
    }

    @Test("the table releases the routes it no longer holds")
    func releasesRoutes() {
        let key = ObjectIdentifier(Key.self)
        let table = _RouteTable<_Route>()
        weak var first: _Route?
        weak var second: _Route?
        do {
            let route = _Route(subscriptions: [], latest: nil)
            first = route
            table[key] = route
        }
        #expect(first != nil)
        do {
            let route = _Route(subscriptions: [], latest: nil)
            second = route
            table[key] = route
        }
        #expect(first == nil, "a replaced route is released")
        table[key] = nil
        #expect(second == nil, "a removed route is released")
    }
}
