"""`manage.py devserver [addrport]`: the development server (`runserver`, as the installed apps define it:
static files by WhiteNoise) plus, without CELERY_BROKER_URL, celery beat's schedule in the server's process
(registry.management.dev_beat): failed deliveries are retried and due syncs pulled, as in production. `make run` runs it."""

from typing import TYPE_CHECKING

from django.core.management import get_commands, load_command_class

if TYPE_CHECKING:  # (at run time: whichever app's `runserver` wins, as `manage.py runserver` would run it)
    from django.core.management.commands.runserver import Command as Runserver
else:
    Runserver = type(load_command_class(get_commands()["runserver"], "runserver"))


class Command(Runserver):
    help = (
        "Start the development server; without CELERY_BROKER_URL it also runs celery beat's schedule (delivery "
        "retries, due syncs) in its process."
    )

    def inner_run(self, *args, **options):
        # here: inner_run is the serving process (under the autoreloader, its child), the only one that needs
        # dev_beat and Celery: the thread lives beside the server
        from registry.management import dev_beat

        if dev_beat.start():
            self.stdout.write("Celery beat's schedule (delivery retries, due syncs) runs in this process.")
        super().inner_run(*args, **options)
