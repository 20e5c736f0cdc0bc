// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

extension EventBus {
    /// Every message published on `channel` from now on, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await line in bus.messages(of: ChatChannels.lines) { print(line) }
    /// ```
    ///
    /// Behaves like ``events(of:bufferingPolicy:)``: messages arrive in the order they were
    /// published, and the sequence ends when its task is cancelled or the bus shuts down.
    public func messages<Message>(
        of channel: EventChannel<Message>,
        bufferingPolicy: EventBufferingPolicy = .unbounded
    ) -> EventStream<Message> {
        makeStream(of: _ChannelMessage<Message>.self, channel: channel.identity, bufferingPolicy: bufferingPolicy) {
            envelope in
            // Channel identity includes the message type, so this cast always succeeds.
            (envelope.event as! _ChannelMessage<Message>).message
        }
    }

    /// The current value of `state`, if it has one, then every change, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await info in bus.values(of: GameStates.playerState(1)) { render(info) }
    /// ```
    ///
    /// Values arrive newest-last and never go back to an older value; equal values are not
    /// repeated. The sequence ends when its task is cancelled or the bus shuts down.
    public func values<Value>(
        of state: EventState<Value>,
        bufferingPolicy: EventBufferingPolicy = .unbounded
    ) -> EventStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: _StreamDelivery.self, bufferingPolicy: bufferingPolicy.streamPolicy)
        // The sink takes the changes in order from the state's outbox, so the stream sees every
        // change, and never one value twice in a row; ending the subscription ends the stream.
        let sink = _StreamSink(bus: self, continuation: continuation)
        let subscription = subscribeState(
            state.identity, _StateChange<Value>.self, target: sink, registrar: sink,
            handlers: _ErasedHandler(handler: { _, _ in }))
        continuation.onTermination = { [weak subscription] _ in subscription?.cancel() }
        return EventStream(base: stream) { envelope in
            // Only this state's changes reach the stream, so this cast always succeeds.
            (envelope.event as! _StateChange<Value>).value
        }
    }
}
