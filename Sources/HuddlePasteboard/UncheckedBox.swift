/// Moves a non-Sendable value to the one thread that will use it from then on.
///
/// `@unchecked Sendable` is safe because the creator gives up the value: it is used only by the receiving thread
/// (an X11 connection handed to its owner or watcher thread, a pipe handed to its reader).
struct UncheckedBox<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
