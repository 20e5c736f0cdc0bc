// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Testing

/// Keeps the migration articles' tables checkable (issue 17: "a table of their API to ours, every
/// row tested"): each row's last cell, "Test", names `Suite/function`, and a Swift Testing test of
/// that name must exist in the test sources. The README's copies of the tables must be the
/// articles' rows without that column.
@Suite("K2: migration articles, every table row names a test that exists")
struct MigrationTablesCheckTests {
    static let articles = [
        "MigratingFromEventDrivenSwift52.md", "MigratingFromCausality.md", "MigratingFromSwiftEventBus.md",
    ]

    @Test("each migration article has a table whose last column is Test", arguments: articles)
    func tableHasTestColumn(article: String) throws {
        let tables = Self.tables(in: try Self.read(Self.articlePath(article)))
        #expect(!tables.isEmpty, "\(article) has no table")
        for table in tables {
            #expect(table.header.last == "Test", "\(article): a table's last column is \(table.header.last ?? "none")")
            #expect(!table.rows.isEmpty, "\(article): a table without rows")
        }
    }

    @Test("every row of a migration table names an existing test", arguments: articles)
    func everyRowNamesATest(article: String) async throws {
        let sources = try Self.testSources()
        for table in Self.tables(in: try Self.read(Self.articlePath(article))) {
            for row in table.rows {
                let seed = row.first ?? ""
                guard row.count == table.header.count else {
                    Issue.record("\(article): row \(seed) has \(row.count) cells, the header \(table.header.count)")
                    continue
                }
                let cell = row[row.count - 1].replacingOccurrences(of: "`", with: "")
                let parts = cell.split(separator: "/").map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    Issue.record("\(article): row \(seed) names no test (\"\(cell)\"); write Suite/function")
                    continue
                }
                let exists = Self.testExists(suite: parts[0], function: parts[1], in: sources)
                #expect(exists, "\(article): row \(seed) names \(cell), which is no @Test in the test sources")
                // Seconds of work in all: let the other tests' tasks have Swift's pool in between.
                await Task.yield()
            }
        }
    }

    @Test("the README's migration tables are the articles' tables without the Test column")
    func readmeTablesMatchArticles() throws {
        let readme = Self.tables(in: try Self.read(Self.root.appendingPathComponent("README.md")))
        var compared = 0
        for article in Self.articles {
            for table in Self.tables(in: try Self.read(Self.articlePath(article))) {
                let header = Array(table.header.dropLast())
                guard let copy = readme.first(where: { $0.header == header }) else { continue }
                compared += 1
                #expect(copy.rows == table.rows.map { Array($0.dropLast()) }, "README's \(header[0]) table")
            }
        }
        #expect(compared == 2, "the README copies the Causality and SwiftEventBus tables")
    }
}

extension MigrationTablesCheckTests {
    struct Table {
        let header: [String]
        let rows: [[String]]
    }

    /// The repository's root, three levels above this file (Tests/EventDrivenSwiftTests/…).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func articlePath(_ name: String) -> URL {
        root.appendingPathComponent("Sources/EventDrivenSwift/EventDrivenSwift.docc").appendingPathComponent(name)
    }

    static func read(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8)
    }

    /// The Markdown tables of `text`: runs of lines that start with `|`, the second of which is
    /// the delimiter row.
    static func tables(in text: String) -> [Table] {
        var tables: [Table] = []
        var block: [String] = []
        func flush() {
            if block.count >= 2, block[1].allSatisfy({ "|-: ".contains($0) }) {
                tables.append(Table(header: cells(block[0]), rows: block.dropFirst(2).map(cells)))
            }
            block = []
        }
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("|") { block.append(line) } else { flush() }
        }
        flush()
        return tables
    }

    /// The cells of a table row, trimmed; a `|` inside a code span does not split.
    static func cells(_ line: String) -> [String] {
        var cells: [String] = []
        var current = ""
        var inCode = false
        for character in line.dropFirst() {
            if character == "`" { inCode.toggle() }
            if character == "|" && !inCode {
                cells.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        return cells
    }

    /// Every Swift file under Tests/: its name (without extension) and text.
    static func testSources() throws -> [(name: String, text: String)] {
        let tests = root.appendingPathComponent("Tests")
        let files =
            FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return try files.map { ($0.deletingPathExtension().lastPathComponent, try read($0)) }
    }

    /// Whether a file that is, or extends, `suite` has `func function(` under a `@Test` attribute.
    static func testExists(suite: String, function: String, in sources: [(name: String, text: String)]) -> Bool {
        let declarations = ["struct", "final class", "class", "extension", "enum"].flatMap { keyword in
            [" ", ":", " {"].map { "\(keyword) \(suite)\($0)" }
        }
        for source in sources {
            guard
                source.name == suite || source.name.hasPrefix("\(suite)+")
                    || declarations.contains(where: source.text.contains)
            else { continue }
            let lines = source.text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            for (index, line) in lines.enumerated() where line.hasPrefix("func \(function)(") {
                // The attributes and comments directly above the declaration.
                var above = index - 1
                while above >= 0, !lines[above].isEmpty, !lines[above].hasSuffix("{"), !lines[above].hasSuffix("}") {
                    if lines[above].hasPrefix("@Test") { return true }
                    above -= 1
                }
            }
        }
        return false
    }
}
