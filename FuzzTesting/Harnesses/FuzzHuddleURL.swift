import HuddlePasteboard

/// Any text → the `huddle:` pasteboard URL parser. Whatever parses must encode and parse again to an equal URL.
public func fuzzHuddleURL(_ input: UnsafeRawBufferPointer) throws(FuzzInvariantViolation) {
    let text = String(decoding: input, as: UTF8.self)
    guard let url = try? HuddleURL(parsing: text) else { return }
    guard let encoded = try? url.encoded() else { return }
    try require((try? HuddleURL(parsing: encoded)) == url, "a parsed URL did not survive encode → parse")
}
