// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// What interceptors are told of the receivers that mailboxes serve.
extension _MailboxExecutor {
    /// The bus's listener thread is named after ``listenerThreadNamePrefix``; every other
    /// mailbox thread serves an EventThread.
    static var listenerThreadNamePrefix: String { "EventDrivenSwift.listener(" }

    /// The kind of receiver the mailbox is.
    var receiverKind: EventReceiverKind {
        switch self {
        case .thread(let thread): thread.name.hasPrefix(Self.listenerThreadNamePrefix) ? .listenerThread : .thread
        case .queue, .actor, .globalQueue: .requester
        case .mainQueue: .mainActor
        }
    }

    /// The receiver's name, one per track of a trace: an EventThread's class name, `listener
    /// thread`, `main actor`, `actor Model`, `queue 'label'`, `serial context`.
    var receiverName: String {
        switch self {
        case .thread(let thread):
            if thread.name.hasPrefix(Self.listenerThreadNamePrefix) { return "listener thread" }
            if thread.name.hasPrefix("EventThread("), thread.name.hasSuffix(")") {
                return String(thread.name.dropFirst("EventThread(".count).dropLast())
            }
            return thread.name
        case .queue(let drain): return "queue '\(drain.queue.label)'"
        case .actor(let actor): return "actor \(type(of: actor))"
        case .mainQueue: return "main actor"
        case .globalQueue: return "serial context"
        }
    }
}
