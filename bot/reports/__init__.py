"""What the stored attempts mean for a group: a closed daily post's summary (`summary`) and
the moderators' /insights (`insights`).

Pure: the store hands over the attempts, these decide what they mean and word it. Import the
submodules directly.
"""
