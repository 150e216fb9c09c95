#if canImport(AppKit)
public import AppKit

/// The macOS general pasteboard (`NSPasteboard.general`).
///
/// > Important: Kept compiling in principle only: this project builds and tests on Linux, so this file has never
/// > been compiled. macOS offers no change notification; ``changes(of:)`` compares `changeCount` twice a second,
/// > as Apple's documentation suggests.
public final class AppKitPasteboard: GeneralPasteboard, @unchecked Sendable {
    // NSPasteboard is thread-safe for these calls; the class holds no other state.
    public init() {}

    public var backendDescription: String { "macOS NSPasteboard" }

    private func check(_ selection: PasteboardSelection) throws {
        guard selection == .clipboard else {
            throw PasteboardError(.invalidInput, "macOS has no PRIMARY selection")
        }
    }

    public func types(in selection: PasteboardSelection) async throws -> [PasteboardType] {
        try self.check(selection)
        return (NSPasteboard.general.types ?? []).map { PasteboardType($0.rawValue) }
    }

    public func data(for type: PasteboardType, in selection: PasteboardSelection) async throws -> Data {
        try self.check(selection)
        guard let data = NSPasteboard.general.data(forType: NSPasteboard.PasteboardType(type.canonical.rawValue)) else {
            throw PasteboardError(.typeNotOffered, "the pasteboard does not offer \(type)")
        }
        return data
    }

    public func write(_ item: PasteboardItem, to selection: PasteboardSelection) async throws {
        try self.check(selection)
        let pasteboard = NSPasteboard.general
        pasteboard.clearContents()
        for representation in item.representations {
            pasteboard.setData(representation.data, forType: .init(representation.type.canonical.rawValue))
        }
    }

    public func changes(of selection: PasteboardSelection) throws -> AsyncStream<PasteboardChange> {
        try self.check(selection)
        return AsyncStream { continuation in
            let task = Task {
                var last = NSPasteboard.general.changeCount
                var sequence = 0
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(500))
                    let count = NSPasteboard.general.changeCount
                    guard count != last else { continue }
                    last = count
                    sequence += 1
                    let item = (try? await self.item(in: .clipboard)) ?? PasteboardItem()
                    let types = (try? await self.types(in: .clipboard)) ?? []
                    continuation.yield(.init(item: item, types: types, isSecret: item.isSecret, sequence: sequence))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}
#endif
