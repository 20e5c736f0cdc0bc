/// The routing key of `event`: its exact dynamic type. Only a class instance can be of a subtype
/// of its static type, so the dynamic type is looked up only for classes; for a struct or an
/// enum the static type is the key, without a runtime call.
@inlinable
func _routingKey<E: Eventable>(of event: E) -> ObjectIdentifier {
    E.self is AnyClass ? ObjectIdentifier(type(of: event)) : ObjectIdentifier(E.self)
}

/// Reads `event` as an `E`. Routing is by exact dynamic type, so a subscription for `E` only
/// receives events that hold exactly an `E`: the existential is opened and its value taken as is,
/// with no dynamic cast. Any other type falls back to a checked cast.
@inline(__always)
func _project<E: Eventable>(_ event: any Eventable, as _: E.Type) -> E {
    func open<T: Eventable>(_ value: T) -> E {
        if T.self == E.self { return unsafeBitCast(value, to: E.self) }
        return value as! E
    }
    return open(event)
}
