// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

@_exported import Dispatch
@_exported import Foundation
@_exported import ThreadSafeSwift

// The `Observable` module (the seeds' observers) is not re-exported: its protocol `Observable`
// would sit beside Observation's in every file that imports EventDrivenSwift, and win. An
// ``EventThread`` still has `addObserver`, `removeObserver` and `withObservers`; code that names
// `ObservableClass` or `ObserverRegistry` does `import Observable`.
