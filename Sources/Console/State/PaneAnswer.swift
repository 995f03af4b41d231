import DeskCore

/// What a pane's tasks answer: each pane has one enum of its answers, and its description takes
/// them through `PaneAnswers.of`, the one place an answer is cast back to its pane's type.
public protocol PaneAnswer: Sendable {}

/// How a pane takes the answers of the tasks it started.
public struct PaneAnswers: Sendable {
    let take: @Sendable (inout ConsoleState, _ request: Int, any PaneAnswer) -> [ConsoleEffect]

    /// A pane that starts no tasks.
    public static let none = PaneAnswers { _, _, _ in [] }

    /// Answers of type `Answer`, switched over exhaustively by `receive`.
    public static func of<Answer: PaneAnswer>(
        _ type: Answer.Type, _ receive: @escaping @Sendable (inout ConsoleState, _ request: Int, Answer) -> [ConsoleEffect]
    ) -> PaneAnswers {
        PaneAnswers { state, request, answer in
            // A request is owned by the pane that started it and its tasks answer with its type;
            // anything else is not an answer to it, and is dropped like a stale one.
            guard let answer = answer as? Answer else { return [] }
            return receive(&state, request, answer)
        }
    }
}
