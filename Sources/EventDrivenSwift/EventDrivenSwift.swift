@_exported import Dispatch
@_exported import Foundation
@_exported import Observable
@_exported import ThreadSafeSwift
