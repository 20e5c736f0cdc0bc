/// The routing key of `event`: its exact dynamic type. Only a class instance can be of a subtype
/// of its static type, so the dynamic type is looked up only for classes; for a struct or an
/// enum the static type is the key, without a runtime call.
@inlinable
func _routingKey<E: Eventable>(of event: E) -> ObjectIdentifier {
    E.self is AnyClass ? ObjectIdentifier(type(of: event)) : ObjectIdentifier(E.self)
}

/// Whether a value of type `E` is stored in an existential container's inline buffer (its first
/// three words) without any reference to count: trivially copyable, at most three words and
/// word-aligned. Boxing such a value is a few stores, and reading it back one load.
@inlinable
func _boxesInline<E>(_: E.Type) -> Bool {
    _isPOD(E.self) && MemoryLayout<E>.size <= 3 * MemoryLayout<UnsafeRawPointer>.size
        && MemoryLayout<E>.alignment <= MemoryLayout<UnsafeRawPointer>.alignment
}

/// Reads `event` as an `E`. Routing is by exact dynamic type, so a subscription for `E` only
/// receives events that hold exactly an `E`.
///
/// Where `E` is known at compile time (a handler built by ``_ErasedHandler`` in the caller's
/// module) and stored inline (``_boxesInline(_:)``), it is loaded from the existential's buffer.
/// Otherwise the existential is opened and its value taken as is, with no dynamic cast;
/// another type falls back to a checked cast.
@inlinable
func _project<E: Eventable>(_ event: any Eventable, as _: E.Type) -> E {
    if _boxesInline(E.self) {
        assert(ObjectIdentifier(type(of: event)) == ObjectIdentifier(E.self), "routed by exact type")
        return withUnsafePointer(to: event) { UnsafeRawPointer($0).load(as: E.self) }
    }
    func open<T: Eventable>(_ value: T) -> E {
        if T.self == E.self { return unsafeBitCast(value, to: E.self) }
        return value as! E
    }
    return open(event)
}
