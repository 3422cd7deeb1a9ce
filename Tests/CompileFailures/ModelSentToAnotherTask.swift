// expect: passing closure as a 'sending' parameter risks causing data races
import Foundation
import Logbook

func misuse(_ note: Note) {
    Task.detached { note.text = "changed elsewhere" }
}
