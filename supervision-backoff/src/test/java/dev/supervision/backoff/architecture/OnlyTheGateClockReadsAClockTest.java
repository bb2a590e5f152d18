package dev.supervision.backoff.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.supervision.backoff.internal.GateClock;
import java.time.Clock;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/**
 * Library code reads no clock but through one seam, {@code internal.GateClock}: every other wait
 * goes through the actor system's scheduler, so that {@code ManualTime} drives it.
 */
final class OnlyTheGateClockReadsAClockTest {

  private static final JavaClasses CORE =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.supervision.backoff");

  private static final DescribedPredicate<JavaMethodCall> READS_A_CLOCK =
      DescribedPredicate.describe(
          "a clock (System.nanoTime, System.currentTimeMillis, java.time's now())",
          call -> {
            String owner = call.getTargetOwner().getName();
            String name = call.getName();
            return (owner.equals("java.lang.System")
                    && (name.equals("nanoTime") || name.equals("currentTimeMillis")))
                || (owner.startsWith("java.time.") && name.equals("now"));
          });

  @Test
  void onlyTheGateClockReadsAClock() {
    noClasses()
        .that()
        .doNotBelongToAnyOf(GateClock.class)
        .should()
        .callMethodWhere(READS_A_CLOCK)
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(Clock.class)
        .orShould()
        .dependOnClassesThat()
        .areAssignableTo(InstantSource.class)
        .check(CORE);
  }
}
