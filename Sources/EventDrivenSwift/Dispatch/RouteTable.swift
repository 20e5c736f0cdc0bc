/// The routes of plain events, by the `ObjectIdentifier` of their type.
///
/// A dictionary whose key hashes the type's metadata address with one multiply instead of
/// SipHash: every dispatch looks its route up here, and type addresses are unique and never
/// chosen by an attacker, so a keyed hash buys nothing.
struct _RouteTable {
    private var storage: [_TypeKey: _Route] = [:]

    subscript(key: ObjectIdentifier) -> _Route? {
        get { storage[_TypeKey(key)] }
        set { storage[_TypeKey(key)] = newValue }
    }

    var values: Dictionary<_TypeKey, _Route>.Values { storage.values }
}

/// An event type as a dictionary key, with a cheap hash.
struct _TypeKey: Hashable {
    let id: ObjectIdentifier

    init(_ id: ObjectIdentifier) { self.id = id }

    func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Fibonacci hashing of the address, folded so that the low bits the dictionary uses vary.
    func _rawHashValue(seed: Int) -> Int {
        let mixed = (UInt(bitPattern: id) ^ UInt(bitPattern: seed)) &* 0x9E37_79B9_7F4A_7C15
        return Int(bitPattern: mixed ^ (mixed >> 32))
    }
}
