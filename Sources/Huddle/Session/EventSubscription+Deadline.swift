extension EventSubscription {
    /// The first element for which `matching` gives a value, waiting until `deadline`; nil at the deadline or
    /// when the events end. The subscription stays usable afterwards.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled (the caller was interrupted).
    public func first<T: Sendable>(
        until deadline: ContinuousClock.Instant,
        _ matching: @escaping @Sendable (Element) -> T?
    ) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                for await element in self { if let value = matching(element) { return value } }
                return nil
            }
            group.addTask {
                try await Task.sleep(until: deadline)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}
