// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

/// Sends each event to the thread with the fewest events waiting or in progress.
///
/// Ties go to the first such thread. Loads are read one after another while other threads
/// dispatch, so under concurrent dispatch the choice is the least loaded thread as seen a
/// moment before.
public struct EventPoolLowestLoadBalancer: EventPoolBalancing {
    /// Creates the balancer.
    public init() {}

    /// Returns the position of the least loaded thread.
    public func selectMember(for event: any Eventable, metadata: EventMetadata, among members: EventPoolMembers) -> Int
    {
        var best = members.startIndex
        var bestLoad = Int.max
        for index in members.indices {
            let load = members[index].load
            if load < bestLoad {
                best = index
                bestLoad = load
                if load == 0 { break }
            }
        }
        return best
    }
}
