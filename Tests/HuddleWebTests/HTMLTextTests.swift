import Foundation
import Testing

@testable import HuddleWeb

@Suite struct HTMLTextTests {
    @Test func theFiveCharactersThatEndATextOrAnAttributeAreReferences() {
        #expect(
            HTMLText.escaped(#"<a href="x" title='y'>&</a>"#)
                == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
        )
        #expect(HTMLText.escaped("Ünïcode 📷") == "Ünïcode 📷")
    }

    @Test func queryValuesKeepOnlyUnreservedCharacters() {
        #expect(HTMLText.queryValue("a b&c=d/é") == "a%20b%26c%3Dd%2F%C3%A9")
        #expect(HTMLText.queryValue("0badcafe-_.~") == "0badcafe-_.~")
    }

    @Test func agesAreInTheLargestWholeUnit() {
        let start = Date(timeIntervalSince1970: 0)
        #expect(PageHTML.age(since: start, now: start.addingTimeInterval(59)) == "just now")
        #expect(PageHTML.age(since: start, now: start.addingTimeInterval(125)) == "2 min ago")
        #expect(PageHTML.age(since: start, now: start.addingTimeInterval(7200)) == "2 h ago")
        #expect(PageHTML.age(since: start, now: start.addingTimeInterval(86400)) == "1 day ago")
        #expect(PageHTML.age(since: start, now: start.addingTimeInterval(3 * 86400)) == "3 days ago")
    }
}

@Suite struct PageQuestionTests {
    @Test func aTerminalsQuestionIsWordedForThePage() {
        let question = PageState.Question(asked: 2, ["? pair with vm (KEPAYPW)? Code: 544 985. [y/n]", "plain"])
        #expect(question.lines == ["Pair with vm (KEPAYPW)? Code: 544 985.", "Plain"])
        #expect(question.id == 2)
    }
}
