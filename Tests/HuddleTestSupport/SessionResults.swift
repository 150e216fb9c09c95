import Huddle

/// Whether a sender's call ended with ``PeerSessionError/transferDeclined(_:)``.
public func declined<T>(_ result: Result<T, any Error>) -> Bool {
    if case .failure(let error as PeerSessionError) = result { return error.code == .transferDeclined }
    return false
}
