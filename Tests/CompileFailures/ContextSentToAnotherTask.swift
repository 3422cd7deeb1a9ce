// expect: passing closure as a 'sending' parameter risks causing data races
import Foundation
import Logbook

func misuse(_ context: ModelContext) {
    Task.detached { try context.save() }
}
