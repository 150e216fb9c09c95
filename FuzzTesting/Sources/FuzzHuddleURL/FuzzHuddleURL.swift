import HuddlePasteboard

/// Any text → the `huddle:` pasteboard URL parser. Whatever parses must encode and parse again to an equal URL.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    guard let url = try? HuddleURL(parsing: text) else { return 0 }
    guard let encoded = try? url.encoded() else { return 0 }
    precondition((try? HuddleURL(parsing: encoded)) == url, "a parsed URL did not survive encode → parse")
    return 0
}
