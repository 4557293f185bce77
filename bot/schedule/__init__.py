"""The scheduler loop, which drives the service: daily quizzes and the review reminders' pass."""
