// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

// Registration: every receiver kind adds and removes its subscriptions here, and finds the
// bus's shared mailboxes.
extension EventBus {
    /// Adds `subscription` to its route; every registration of every receiver kind comes here.
    ///
    /// A registration that arrives once the bus has begun shutting down ends at once (a stream
    /// finishes, an async listener ends, a handle reports inactive): the shutdown's snapshot of
    /// the subscriptions may have been taken before it was added, and the lifecycle stops
    /// accepting before that snapshot, so checking after the add leaves no gap.
    func register(_ subscription: _Subscription) {
        // Listeners of the route whose owner was freed are found here, outside the lock: loading
        // a weak owner may release it, and its `deinit` is user code (see `_Registry.add`).
        let current = subscription.channel == nil ? registry.withLock { $0.routes[subscription.eventType] } : nil
        let ownerReleased = current?.subscriptions.filter { $0.hasOwner && $0.owner == nil } ?? []
        _ = consume current
        // What the change replaced is released here, after the lock (see `_Registry.Replaced`).
        let replaced = registry.withLock { $0.add(subscription, pruning: ownerReleased) }
        if let table = replaced.table { dispatches.retire(table) }
        // Out of the registry already: only their deliveries still pending must see them gone.
        for listener in replaced.ownerReleased { listener.cancelWithoutUnregistering() }
        if !lifecycle.isAccepting {
            subscription.cancel()
        } else if let error = unusableContextError(subscription.target) {
            // A channel's or a state's subscriber on a closed context or another bus's thread (a
            // listener's registration fails before it gets here): removed at once, and reported.
            subscription.cancel()
            report(error)
        }
        if subscription.isForConsumptionNotices { updateConsumptionNotices() }
    }

    func unregister(_ subscription: _Subscription) {
        // Deliveries already queued for the removed subscription are still settled by its
        // mailbox (counted as discarded); keep the mailbox visible to `drain()` and `shutdown()`
        // until then, and until the batch in progress is counted: a close runs the barrier at
        // once, while its drainer may still be counting what the close cut short. Kept before it
        // leaves the registry, so that a shutdown looking for mailboxes in between finds it.
        let mailbox = subscription.mailbox
        let id = mailbox.map { ObjectIdentifier($0) }
        if let mailbox, let id { sharedMailboxes.withLock { $0.detaching[id, default: (mailbox, 0)].count += 1 } }
        let replaced = registry.withLock { $0.remove(subscription) }
        if let table = replaced.table { dispatches.retire(table) }
        _ = consume replaced
        if subscription.isChannelSubscription { forgetStateIfUnused(after: subscription) }
        if subscription.isForConsumptionNotices { updateConsumptionNotices() }
        guard let mailbox, let id else { return }
        mailbox.addBarrier { [weak self, weak mailbox] in
            guard let mailbox else { return self?.forgetDetaching(id) ?? () }
            mailbox.whenBatchCounted { [weak self] in self?.forgetDetaching(id) }
        }
    }

    /// Ends one keeping of a detaching mailbox (see ``unregister(_:)``).
    private func forgetDetaching(_ id: ObjectIdentifier) {
        sharedMailboxes.withLock { shared in
            guard let entry = shared.detaching[id] else { return }
            shared.detaching[id] = entry.count > 1 ? (entry.mailbox, entry.count - 1) : nil
        }
    }

    /// How many handlers are registered for `type`.
    public func subscriberCount<E: Eventable>(for type: E.Type) -> Int {
        registry.withLock { $0.routes[ObjectIdentifier(type)]?.subscriptions.count ?? 0 }
    }

    /// The mailbox of the bus's listener thread, started on first use.
    var listenerMailbox: _Mailbox {
        sharedMailboxes.withLock { shared in
            if let mailbox = shared.listenerThread { return mailbox }
            let thread = _MailboxThread(
                name: _MailboxExecutor.listenerThreadNamePrefix + "\(label))",
                systemName: _ThreadName.make(bus: label, role: "listener"))
            let mailbox = _Mailbox(executor: .thread(thread), counters: counters)
            thread.start(mailbox)
            shared.listenerThread = mailbox
            return mailbox
        }
    }

    /// The mailbox drained on the main queue, for main-actor delivery.
    var mainMailbox: _Mailbox {
        sharedMailboxes.withLock { shared in
            if let mailbox = shared.main { return mailbox }
            let mailbox = _Mailbox(executor: .mainQueue(.mainActor(watch: mainQueueWatch)), counters: counters)
            shared.main = mailbox
            return mailbox
        }
    }
}
