import Foundation

/// `name`, then `name (2)`, `name (3)`, … up to 1000, the number before a file's extension (`photo (2).png`) and
/// after a directory's whole name (`photos.2024 (2)`).
package struct FreeNames: Sequence, IteratorProtocol {
    let name: String
    let base: String
    let ext: String
    var index = 0

    package init(_ name: String, splittingExtension: Bool = true) {
        self.name = name
        base = splittingExtension ? (name as NSString).deletingPathExtension : name
        ext = splittingExtension ? (name as NSString).pathExtension : ""
    }

    package mutating func next() -> String? {
        index += 1
        guard index <= 1000 else { return nil }
        return index == 1 ? name : "\(base) (\(index))" + (ext.isEmpty ? "" : ".\(ext)")
    }
}
