// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// EventDrivenSwift 5.2's name for where a listener's callback runs. Its five cases are five of
/// ``DeliveryContext``'s, so `executeOn: .listenerThread` compiles as it did.
@available(*, deprecated, renamed: "DeliveryContext")
public typealias ExecuteEventOn = DeliveryContext

extension DeliveryContext {
    /// The five contexts EventDrivenSwift 5.2's `ExecuteEventOn` had, in its order; 5.2's enum
    /// was `CaseIterable`.
    @available(*, deprecated, message: "list the DeliveryContext cases you need")
    public static var allCases: [DeliveryContext] {
        [.requesterThread, .listenerThread, .taskThread, .mainActor, .synchronous]
    }
}
