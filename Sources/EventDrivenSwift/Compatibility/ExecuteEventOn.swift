// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// EventDrivenSwift 5.2's name for where a listener's callback runs. Its three cases
/// (`.requesterThread`, `.listenerThread`, `.taskThread`) are three of ``DeliveryContext``'s, so
/// `executeOn: .listenerThread` compiles as it did.
@available(*, deprecated, renamed: "DeliveryContext")
public typealias ExecuteEventOn = DeliveryContext
