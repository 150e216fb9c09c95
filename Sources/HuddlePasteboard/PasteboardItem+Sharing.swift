import Foundation

extension GeneralPasteboard {
    /// What `selection` holds now, to share it (`huddle clip share`).
    ///
    /// - Throws: ``PasteboardError`` `.empty` when it holds nothing; the read's errors.
    public func itemToShare(in selection: PasteboardSelection) async throws -> PasteboardItem {
        let item = try await item(in: selection)
        guard !item.isEmpty else { throw PasteboardError(.empty, "the clipboard is empty: nothing to share") }
        return item
    }
}

extension PasteboardItem {
    /// Writes the representation of `type` (nil: the first) to the file at `path`, atomically (`clip receive
    /// --out`).
    ///
    /// - Throws: ``PasteboardError`` `.typeNotOffered` naming the types the item has; the write's errors.
    public func save(to path: String, type: String?) throws {
        guard let representation = type.map({ representation(for: PasteboardType($0)) }) ?? representations.first
        else {
            let offered = types.map { $0.mimeType ?? $0.rawValue }.joined(separator: ", ")
            throw PasteboardError(.typeNotOffered, "the item has no \(type ?? "data"); it has \(offered)")
        }
        try representation.data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// The whole item, or only its representation of `type` (`clip share --type`).
    ///
    /// - Throws: ``PasteboardError`` `.typeNotOffered` naming the types the item has.
    public func keeping(type: String?) throws -> PasteboardItem {
        guard let type else { return self }
        guard let representation = representation(for: PasteboardType(type)) else {
            let offered = types.map { $0.mimeType ?? $0.rawValue }.joined(separator: ", ")
            throw PasteboardError(.typeNotOffered, "the clipboard has no \(type); it offers \(offered)")
        }
        return PasteboardItem([representation])
    }
}
