// This source file is part of EventDrivenSwift, released under the MIT License.
// See LICENSE at the root of the repository for the license text.

import Foundation
import Testing

@Suite("K1: the article Testing Your Code")
struct ArticleExamplesCheckTests {
    /// The article's Swift blocks, but for the `Package.swift` excerpt, each as its lines
    /// without indentation or blank lines.
    static func articleBlocks() throws -> [[String]] {
        let article = try String(contentsOf: Self.articleURL, encoding: .utf8)
        var blocks: [[String]] = []
        var current: [String]?
        for line in article.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if current != nil, line == "```" {
                if current?.first != "// Package.swift" { blocks.append(current ?? []) }
                current = nil
            } else if current != nil {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if !trimmed.isEmpty { current?.append(trimmed) }
            }
        }
        return blocks
    }

    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let articleURL = testsDirectory.appending(
        path: "../../Sources/EventDrivenSwiftTesting/EventDrivenSwiftTesting.docc/TestingYourCode.md")
    static let examplesURL = testsDirectory.appending(path: "ArticleExamples.swift")

    @Test("every Swift block of the article is compiled and run, unchanged, in ArticleExamples.swift")
    func articleBlocksAreHere() throws {
        let blocks = try Self.articleBlocks()
        #expect(blocks.count >= 5)
        let examples = try String(contentsOf: Self.examplesURL, encoding: .utf8)
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        for block in blocks {
            let found = examples.indices.contains { start in
                start + block.count <= examples.count && Array(examples[start..<start + block.count]) == block
            }
            #expect(found, "not in ArticleExamples.swift: \(block.first ?? "")")
        }
    }
}
